// The critical section writes through a physical storage buffer pointer (GL_EXT_buffer_reference).
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=true accesses_memory=true color=false early=false sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require
#extension GL_EXT_buffer_reference : require

layout(pixel_interlock_ordered) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Counters {
    uint count[];
};

layout(push_constant) uniform Pointers {
    Counters counters;
    uint width;
} pointers;

void main() {
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    uint index = uint(pixel.y) * pointers.width + uint(pixel.x);
    beginInvocationInterlockARB();
    pointers.counters.count[index] = pointers.counters.count[index] + 1u;
    endInvocationInterlockARB();
}
